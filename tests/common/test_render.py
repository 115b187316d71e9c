"""common.render text: wide-coverage faces, a fallback face for other scripts and ``?`` for glyphs no face
has (pygame's default font drew CJK names as empty boxes)."""

from __future__ import annotations

import pygame
import pytest

from common.render import FALLBACK_FACES, _system_font, font, render_text, text_runs, text_size


def test_text_keeps_the_default_fonts_line_height_and_replaces_unknown_glyphs():
    assert [part for _, part in text_runs("Ann \U00013000", 22)] == ["Ann ?"]
    main = text_runs("Ann", 22)[0][0]
    assert main.get_linesize() <= font(22).get_linesize()
    assert text_size("Ann", 22) == main.size("Ann")
    assert text_runs("", 22)[0][1] == ""


@pytest.mark.skipif(_system_font(FALLBACK_FACES, 22, False) is None, reason="no CJK fallback font installed")
def test_cjk_names_use_the_fallback_face_and_draw_ink():
    runs = text_runs("名 Ann", 22)
    assert [part for _, part in runs] == ["名", " Ann"]
    assert runs[0][0] is not runs[1][0]
    image = render_text("名", 22, (255, 255, 255))
    box = render_text("\U00013000", 22, (255, 255, 255))  # drawn as "?"
    assert image.get_size()[0] == text_size("名", 22)[0]
    tofu = runs[1][0].render("名", True, (255, 255, 255))  # the main face's missing-glyph box
    assert pygame.image.tobytes(image, "RGBA") != pygame.image.tobytes(tofu, "RGBA")
    assert box.get_bounding_rect().w > 0
