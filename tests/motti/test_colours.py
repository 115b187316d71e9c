"""The window colours of spec/motti.md §6 cannot be confused: the sea and every player's free (dark) and
occupied (bright) colour differ pairwise by a CIEDE2000 colour difference of at least 12.

CIEDE2000 is written out here (Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula", 2005) and
checked against pairs of that paper's test data, so that the bound is measured, not assumed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from motti import view

MIN_DELTA_E = 12.0


def srgb_to_lab(rgb: tuple[int, int, int]) -> np.ndarray:
    """CIELAB (D65 white) of an 8-bit sRGB colour."""
    c = np.asarray(rgb, dtype=float) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124564, 0.3575761, 0.1804375],
                       [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
    xyz = to_xyz @ linear / np.array([0.95047, 1.0, 1.08883])
    delta = 6 / 29
    f = np.where(xyz > delta**3, np.cbrt(xyz), xyz / (3 * delta**2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """ΔE00 between two CIELAB colours (k_L = k_C = k_H = 1)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if c2p else 0.0
    d_l, d_c = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        d_h = 0.0
    elif abs(h2p - h1p) <= 180:
        d_h = h2p - h1p
    else:
        d_h = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    d_hp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(d_h) / 2)
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * np.cos(np.radians(h_mean - 30)) + 0.24 * np.cos(np.radians(2 * h_mean))
         + 0.32 * np.cos(np.radians(3 * h_mean + 6)) - 0.20 * np.cos(np.radians(4 * h_mean - 63)))
    d_theta = 30 * np.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_mean**7 / (cp_mean**7 + 25.0**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return float(np.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_hp / s_h) ** 2
                         + r_t * (d_c / s_c) * (d_hp / s_h)))


@pytest.mark.parametrize(("lab1", "lab2", "expected"), [
    # pairs 1, 2, 7, 17-20, 25 and 34 of Sharma et al.'s test data
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_the_formula_gives_the_published_differences(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)


def test_srgb_white_and_red_in_cielab():
    assert srgb_to_lab((255, 255, 255)) == pytest.approx([100.0, 0.0, 0.0], abs=1e-3)
    assert srgb_to_lab((255, 0, 0)) == pytest.approx([53.2408, 80.0925, 67.2032], abs=1e-3)


def board_colours() -> dict[str, tuple[int, int, int]]:
    colours = {"sea": view.SEA}
    for player in range(1, 10):
        colours[f"player {player} occupied"] = view.bright(player)
        colours[f"player {player} free"] = view.dark(player)
    return colours


def test_sea_and_every_players_colours_differ_by_at_least_12():
    colours = board_colours()
    lab = {name: srgb_to_lab(rgb) for name, rgb in colours.items()}
    differences = {(a, b): ciede2000(lab[a], lab[b]) for a, b in itertools.combinations(colours, 2)}
    assert len(differences) == 19 * 18 // 2
    closest = min(differences, key=differences.__getitem__)
    assert differences[closest] >= MIN_DELTA_E, (closest, differences[closest])


def test_every_player_but_white_has_a_saturated_colour():
    # Player 8 was grey (150, 150, 150), next to player 9's white: now pink, CIELAB chroma at least 30.
    assert view.bright(8) == (250, 150, 180)
    for player in range(1, 9):
        _lightness, a, b = srgb_to_lab(view.bright(player))
        assert np.hypot(a, b) >= 30, player
