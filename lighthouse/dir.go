package lighthouse

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Version is the Lighthouse release package.json pins. The set-up
// (scripts/setup.sh) installs it in a folder named after it, so that
// two versions never share a folder.
const Version = "12.8.2"

// DefaultDirs are the folders a Runner looks in, in this order, when
// Config.Dir is empty: where the set-up installs Lighthouse without root,
// $XDG_DATA_HOME/sitediag/lighthouse-<Version> ($HOME/.local/share when
// XDG_DATA_HOME is unset), then where it installs it as root,
// /usr/local/share/sitediag/lighthouse-<Version>. Neither depends on
// the working directory.
func DefaultDirs() []string {
	name := filepath.Join("sitediag", "lighthouse-"+Version)
	var dirs []string
	if data := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(data) {
		dirs = append(dirs, filepath.Join(data, name))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".local", "share", name))
	}
	return append(dirs, filepath.Join("/usr/local/share", name))
}

// FindDir returns the absolute folder that holds node_modules/lighthouse:
// dir when it is not empty, else the first of DefaultDirs that holds it.
// Its error wraps ErrUnavailable and names no folder, so that it can be
// shown to the callers of a service.
func FindDir(dir string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err == nil && installed(abs) {
			return abs, nil
		}
		return "", fmt.Errorf("%w: the lighthouse package is not installed in the configured folder", ErrUnavailable)
	}
	for _, d := range DefaultDirs() {
		if installed(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: Lighthouse %s is not installed (scripts/setup.sh installs it)", ErrUnavailable, Version)
}

// installed reports whether dir holds the lighthouse package.
func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "lighthouse", "core", "index.js"))
	return !errors.Is(err, os.ErrNotExist) && err == nil
}
