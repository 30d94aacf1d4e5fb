"""What every request goes through whatever its endpoint: route resolution, API key, body limits
and deadline, audit line, metrics, security headers, receipts. Never imports an endpoint: it
learns what it needs about a route from the registry the application hands it."""
