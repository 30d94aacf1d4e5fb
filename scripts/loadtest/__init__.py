"""The load tests of the real server: ``closed_loop`` (``make loadtest``: the mix, a slow client,
SIGKILL, SIGTERM, with pass/fail checks) and ``open_model`` (``make loadtest-open``: latency at a
constant arrival rate, against the capacity measured in the same run). ``envelope_cost`` measures
the per-request envelope in-process."""
