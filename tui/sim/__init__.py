"""The local exchange (``xtui sim``): a simulated exchange that speaks the real one's HTTP and WebSocket protocol.

``engine`` is the exchange itself (pure, no I/O); ``server`` serves it on a loopback port; ``market`` and
``history`` give it a synthetic market and a past; ``mirror`` makes it follow a real exchange's prices (paper
trading); ``options``, ``process`` and ``embedded`` run it from the command line, as a child process of ``xtui``,
or in a thread.
"""
