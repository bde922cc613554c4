"""Where the repository is, for the package's modules (python/cudalabs/ lies two folders down)."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
