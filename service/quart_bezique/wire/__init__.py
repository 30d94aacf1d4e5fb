"""Web-free wire forms shared by the API, the receipts and the command line.

A receipt verified offline, a verdict re-adjudicated by the command line and an audit line written
by the service must agree on what a request *is*: its canonical form and digest, and which verdict
endpoint a path names. Kept here, below every web module, so that none of them has to import the
web layer to agree.
"""
