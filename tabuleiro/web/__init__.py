"""`tabuleiro serve`: the browser app. Play a seat against agents, watch agents play, step through replays.

What the server sends for a seat is drawn from that seat's view only (views.py); the page is static files
(static/) that draw the SVG the server sends and post the moves a person clicks.
"""
