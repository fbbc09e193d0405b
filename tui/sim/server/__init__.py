"""The local exchange as a server: HTTP routes (``local_exchange``, ``http_posts``), the WebSocket (``ws_hub``),
request parsing and signatures (``actions``, ``signed_actions``), rate limits and the engine's dispatch.

Nothing is re-exported here: ``xtui``'s own command line imports ``network`` and ``ratelimit`` for its flags,
and must not bring the web server with them.
"""
