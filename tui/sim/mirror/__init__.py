"""Paper trading: the local exchange follows another exchange's instruments and prices (``source``), with makers
quoting around them (``market``), a past read from the source (``past``) and a check of each answer (``sanity``).

Nothing is re-exported here: ``source`` brings the HTTP client, which the exchange loads only when it mirrors.
"""
