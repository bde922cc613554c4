"""Fails when a page of the built site links to a local file that does not exist.

  check_links.py HTML_DIR
"""
import html.parser
import pathlib
import sys
import urllib.parse


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)


def main(argv):
    root = pathlib.Path(argv[1])
    broken = []
    pages = sorted(root.glob("*.html"))
    for page in pages:
        parser = Links()
        parser.feed(page.read_text(errors="replace"))
        for target in parser.targets:
            parsed = urllib.parse.urlparse(target)
            if parsed.scheme or target.startswith(("#", "javascript:", "mailto:")):
                continue
            path = urllib.parse.unquote(parsed.path)
            if path and not (page.parent / path).exists():
                broken.append(f"{page.name}: {target}")
    if broken:
        print("check_links: broken internal links:\n  " + "\n  ".join(sorted(set(broken))), file=sys.stderr)
        return 1
    print(f"check_links: {len(pages)} pages, no broken internal link")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
