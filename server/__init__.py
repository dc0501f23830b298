"""The shells over the library: the command line (``server.cli``) and the HTTP app."""
