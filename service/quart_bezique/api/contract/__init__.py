"""The wire contract: request and response schemas, problem documents and their codes, and reading
a body through them. Imports the core and nothing of the HTTP machinery, so it reads as the
contract and nothing else (``openapi.yaml`` is generated from it).
"""
