"""The wire contract: request and response schemas, problem documents and their codes, the
renderers from core results to wire shapes. Imports the core and nothing of the HTTP machinery, so
it reads as the contract and nothing else (``openapi.yaml`` is generated from it)."""
