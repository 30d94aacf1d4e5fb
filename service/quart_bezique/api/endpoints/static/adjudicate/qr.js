// A QR code of a text drawn as SVG in the page: the receipt can be scanned off the printed sheet.
// The encoder is vendored (vendor/qrcode.js, MIT) and served by the service: nothing is fetched.

import { qrcode } from "./vendor/qrcode.js";

const SVG = "http://www.w3.org/2000/svg";

/** An <svg> of `text` as a QR code (error correction M, version chosen by the length). */
export function qrSvg(text, label) {
  const code = qrcode(0, "M");
  code.addData(text, "Byte");
  code.make();
  const size = code.getModuleCount();
  const quiet = 4;
  let path = "";
  for (let row = 0; row < size; row += 1) {
    for (let col = 0; col < size; col += 1) {
      if (code.isDark(row, col)) path += `M${col + quiet},${row + quiet}h1v1h-1z`;
    }
  }
  const svg = document.createElementNS(SVG, "svg");
  const side = String(size + 2 * quiet);
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  svg.setAttribute("class", "qr");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("shape-rendering", "crispEdges");
  const background = document.createElementNS(SVG, "rect");
  background.setAttribute("width", side);
  background.setAttribute("height", side);
  background.setAttribute("fill", "#fff");
  const dark = document.createElementNS(SVG, "path");
  dark.setAttribute("d", path);
  dark.setAttribute("fill", "#000");
  svg.append(background, dark);
  return svg;
}
