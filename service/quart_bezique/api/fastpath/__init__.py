"""Paths derived from the contract and the core for work too large to run through them item by
item: the batch's table loop (``batch.py``) keeps a batch of thousands of hands cheap without a
second copy of the rules of the wire.
"""
