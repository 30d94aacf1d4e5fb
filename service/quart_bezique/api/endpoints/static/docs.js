// Starts Swagger UI on /docs. A separate file (not an inline script) so the page's
// Content-Security-Policy can forbid inline scripts. Every URL is relative to the page, so the
// page also works behind a path prefix, and nothing is fetched from another origin.
//
// Try-it-out asks in the language the integrator chooses, and in no other. Swagger UI fills a
// header parameter with its schema's example (the contract shows `ru-RU,...` for
// Accept-Language), and a browser adds its own Accept-Language to any request that names none:
// either would turn an English integrator's first 422 Russian. So the example moves into the
// parameter's description (shown, not filled in), and a request whose Accept-Language field was
// left empty says `*`: no preference, which the service answers in English, its default.
var ACCEPT_LANGUAGE = "accept-language";

function isAcceptLanguage(parameter) {
  return (
    parameter !== null &&
    typeof parameter === "object" &&
    parameter.in === "header" &&
    typeof parameter.name === "string" &&
    parameter.name.toLowerCase() === ACCEPT_LANGUAGE
  );
}

// Every Accept-Language header parameter of an OpenAPI document (shared ones and inline ones),
// its example moved from where Swagger UI reads a value to fill in, into its description.
function unfilledLanguage(document) {
  var shared = (document.components && document.components.parameters) || {};
  var lists = [Object.values(shared)];
  Object.values(document.paths || {}).forEach(function (item) {
    lists.push(item.parameters || []);
    Object.values(item).forEach(function (operation) {
      if (operation && Array.isArray(operation.parameters)) lists.push(operation.parameters);
    });
  });
  lists.forEach(function (parameters) {
    parameters.filter(isAcceptLanguage).forEach(function (parameter) {
      var example = parameter.example;
      if (parameter.schema && parameter.schema.example !== undefined) {
        example = parameter.schema.example;
        delete parameter.schema.example;
      }
      delete parameter.example;
      delete parameter.examples;
      if (example !== undefined) {
        parameter.description = (parameter.description || "") + " For example: `" + example + "`.";
      }
    });
  });
  return document;
}

// The contract as loaded: the spec's own fetch (Swagger UI reads its `text`) is rewritten.
function responseInterceptor(response) {
  if (response.ok && typeof response.text === "string" && /openapi\.json$/.test(response.url)) {
    var document = unfilledLanguage(JSON.parse(response.text));
    response.text = JSON.stringify(document);
    response.body = document;
    response.obj = document;
  }
  return response;
}

// A Try-it-out request: the integrator's Accept-Language if they typed one, else `*`.
function requestInterceptor(request) {
  var headers = request.headers || {};
  var named = Object.keys(headers).some(function (name) {
    return name.toLowerCase() === ACCEPT_LANGUAGE && String(headers[name]).trim() !== "";
  });
  if (!named && !request.loadSpec) {
    Object.keys(headers).forEach(function (name) {
      if (name.toLowerCase() === ACCEPT_LANGUAGE) delete headers[name];
    });
    headers["Accept-Language"] = "*";
    request.headers = headers;
  }
  return request;
}

window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    requestInterceptor: requestInterceptor,
    responseInterceptor: responseInterceptor,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
