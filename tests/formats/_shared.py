"""The real files of other agents' formats, and the skip when `../shared` is absent."""

from __future__ import annotations

import pytest

from tests.support import fixtures as fx

needs_formats = pytest.mark.skipif(
    not fx.FORMATS.is_dir(),
    reason="../shared/fixtures-formats is not here (public files, never committed)",
)
