"""Every use of Textual's private API, and nothing else: what each module relies on is named in
``tests/ui/test_render_contract.py``, so a Textual upgrade that moves it fails there, by name."""
