"""`paused_gc`: the one way bulk paths pause the cyclic collector, and put it back."""

from __future__ import annotations

import gc

from tests.support import fixtures as fx
from trajkit.gc_pause import paused_gc
from trajkit.store import open_conversation


def test_paused_gc_restores_the_collector_and_nests() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def test_iter_events_pauses_while_iterating_and_restores_after() -> None:
    conv = open_conversation(fx.sdk_conversation("j_condense"))
    states = [gc.isenabled() for _ in conv.iter_events()]
    assert states and not any(states)
    assert gc.isenabled()
    it = conv.iter_events()
    next(it)
    assert not gc.isenabled()
    it.close()  # a reader that stops early gets the collector back
    assert gc.isenabled()
