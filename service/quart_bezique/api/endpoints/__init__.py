"""One module per endpoint (or small group of pages): each declares what it serves, and the
application assembles them."""
