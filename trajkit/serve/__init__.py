"""`trajkit serve`: a local web app over conversations (index, reports, live follow, compare).

- `catalog`: the index rows in a SQLite cache (FTS5 for full-text search), kept fresh by
  fingerprint, queried one page at a time.
- `app`: the Starlette application (routes, security headers, access token).
- `live`: tails a conversation's `events/` through the store's reader.
- `compare`: two conversations side by side, aligned by user turn and step.

Needs the `serve` extra (`pip install 'trajkit[serve]'`: starlette and uvicorn).
"""
