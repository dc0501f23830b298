"""The Debian packages the product needs at run time are installed by both ways of running it.

A CJK font is one of them: without it a browser on the machine draws the chat page's Chinese text as empty
boxes. ``scripts/run`` installs scripts/apt-packages-runtime.txt (through scripts/apt-install) and the image
installs the same packages.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def runtime_packages() -> list[str]:
    lines = (ROOT / "scripts" / "apt-packages-runtime.txt").read_text(encoding="utf-8").splitlines()
    return [name for line in lines if (name := line.split("#", 1)[0].strip())]


def test_a_cjk_font_is_a_runtime_package() -> None:
    assert "fonts-wqy-microhei" in runtime_packages()


def test_scripts_run_and_the_image_install_every_runtime_package() -> None:
    run = (ROOT / "scripts" / "run").read_text(encoding="utf-8")
    assert "scripts/apt-install scripts/apt-packages-runtime.txt" in run
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    installed = set(re.findall(r"apt-get install[^\n]*?((?:\s+[\w.+-]+)+)\s*\\", dockerfile)[0].split())
    assert set(runtime_packages()) <= installed - {"-y", "--no-install-recommends"}
