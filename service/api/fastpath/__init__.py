"""Answering an endpoint's happy path before Flask is entered, with checks derived from the
contract, so the cheap requests stay cheap without a second copy of the rules of the wire."""
