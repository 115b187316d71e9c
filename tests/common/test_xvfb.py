from xvfb import Xvfb


def test_xvfb_starts_and_reads_root_pixel():
    with Xvfb("320x200x24") as server:
        assert server.name.startswith(":")
        assert server.pixel(5, 5) == (0, 0, 0)
