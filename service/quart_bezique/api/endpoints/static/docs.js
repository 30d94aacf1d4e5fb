// Starts Swagger UI on /docs. A separate file (not an inline script) so the page's
// Content-Security-Policy can forbid inline scripts. Every URL is relative to the page, so the
// page also works behind a path prefix, and nothing is fetched from another origin.
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
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
