"""What every game of the project uses and that knows no game: displays, the event loop, the terminal, saves.

Import only as ``common.<module>``; the name ``common`` itself stays empty so that it cannot shadow or be
shadowed.
"""
