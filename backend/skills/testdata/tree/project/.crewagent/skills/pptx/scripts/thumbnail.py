"""Render a grid of slide thumbnails for a quick visual check."""
import sys

def main(path):
    print(f"thumbnails for {path}")

if __name__ == "__main__":
    main(sys.argv[1])
