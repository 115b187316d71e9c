"""Off-screen drawing helpers the games' views share (pygame Surfaces, no window; ARCHITECTURE.md seam 3)."""

from __future__ import annotations

import functools
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402


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
