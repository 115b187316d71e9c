"""Off-screen drawing helpers the games' views share (pygame Surfaces, no window; ARCHITECTURE.md seam 3)."""

from __future__ import annotations

import functools
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame


@functools.lru_cache(maxsize=32)
def font(points: int, bold: bool = False) -> pygame.font.Font:
    """pygame's default font at ``points`` (pixel height), bold or not; created once per size and weight.

    Initialises ``pygame.font`` on first use (it needs no display).
    """
    if not pygame.font.get_init():
        pygame.font.init()
    face = pygame.font.Font(None, points)
    face.set_bold(bold)
    return face


#: System faces tried, in order, for text that may hold any script (pygame.font.match_font names).
TEXT_FACES = ("dejavusans", "notosans", "freesans", "liberationsans")
#: Faces tried for text the first face cannot show (CJK and other wide-coverage fallbacks).
FALLBACK_FACES = ("notosanscjksc", "notosanscjk", "droidsansfallback", "wenquanyizenhei", "unifont")
_MISSING = "\uffff"  # a noncharacter no font draws: its image is the "missing glyph" box


@functools.lru_cache(maxsize=64)
def _system_font(faces: tuple[str, ...], points: int, bold: bool) -> pygame.font.Font | None:
    """The first of ``faces`` installed, sized so that its line height is that of :func:`font` at
    ``points`` (so layouts measured with :func:`font` hold); None when none is installed."""
    if not pygame.font.get_init():
        pygame.font.init()
    path = next((found for name in faces if (found := pygame.font.match_font(name, bold=bold))), None)
    if path is None:
        return None
    target = font(points, bold).get_linesize()
    size = max(4, points * 2 // 3)
    face = pygame.font.Font(path, size)
    while size > 4 and face.get_linesize() > target:
        size -= 1
        face = pygame.font.Font(path, size)
    return face


@functools.lru_cache(maxsize=4096)
def _has_glyph(face: pygame.font.Font, char: str) -> bool:
    if char == " " or not char.isprintable():
        return True
    image = face.render(char, True, (255, 255, 255), (0, 0, 0))
    missing = face.render(_MISSING, True, (255, 255, 255), (0, 0, 0))
    return image.get_size() != missing.get_size() or (
        pygame.image.tobytes(image, "RGB") != pygame.image.tobytes(missing, "RGB"))


def text_runs(text: str, points: int, bold: bool = False) -> list[tuple[pygame.font.Font, str]]:
    """``text`` split into runs of one font each: a system face with wide coverage (:data:`TEXT_FACES`;
    pygame's default font when none is installed) wherever it has the glyph, else a fallback face
    (:data:`FALLBACK_FACES`, e.g. CJK); a character no face has becomes ``?`` (never the missing-glyph box).
    Sizes match :func:`font` at ``points`` (the same line height)."""
    main = _system_font(TEXT_FACES, points, bold) or font(points, bold)
    fallback = _system_font(FALLBACK_FACES, points, bold)
    runs: list[tuple[pygame.font.Font, str]] = []
    for char in text:
        face = main
        if not _has_glyph(main, char):
            if fallback is not None and _has_glyph(fallback, char):
                face = fallback
            else:
                char = "?"
        if runs and runs[-1][0] is face:
            runs[-1] = (face, runs[-1][1] + char)
        else:
            runs.append((face, char))
    return runs or [(main, "")]


def text_size(text: str, points: int, bold: bool = False) -> tuple[int, int]:
    """The pixel size ``(width, height)`` of :func:`render_text` of ``text``."""
    runs = text_runs(text, points, bold)
    return sum(face.size(part)[0] for face, part in runs), max(face.get_height() for face, _ in runs)


def render_text(text: str, points: int, colour: tuple[int, int, int], bold: bool = False,
                underline: bool = False) -> pygame.Surface:
    """``text`` drawn antialiased in ``colour`` on a transparent Surface, each run in its own font
    (:func:`text_runs`) on a shared baseline."""
    images = []
    for face, part in text_runs(text, points, bold):
        face.set_underline(underline)
        images.append((face.get_ascent(), face.render(part, True, colour)))
        face.set_underline(False)
    if len(images) == 1:
        return images[0][1]
    ascent = max(a for a, _ in images)
    height = max(ascent - a + image.get_height() for a, image in images)
    surface = pygame.Surface((sum(image.get_width() for _, image in images), height), pygame.SRCALPHA)
    x = 0
    for a, image in images:
        surface.blit(image, (x, ascent - a))
        x += image.get_width()
    return surface
