"""The reference server's HTTP side.

The server, WSGI app, auth, request checks, endpoints, uploads, inspector and fault
injection.
"""
