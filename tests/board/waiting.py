"""The board tests' wait for a condition (tests/board/test_board.sh, test_board_page.sh, cdp.py)."""
import time


def wait_for(what, test, seconds=60):
    """test()'s first true value, asked every 0.2 s; AssertionError naming what after seconds."""
    end = time.time() + seconds
    while time.time() < end:
        v = test()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)
