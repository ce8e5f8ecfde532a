package sitediag_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// setupPlan runs scripts/setup.sh --dry-run as on a fresh machine (a PATH
// holding only the shell tools the script itself uses, so every command
// it checks for is missing) and returns the parts it would install, by
// kind (a part already in its place outside the checkout, "have", counts:
// a fresh machine would not have it), and the services it would keep
// stopped.
func setupPlan(t *testing.T, args ...string) (install map[string][]string, quiet []string) {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range []string{"bash", "sed", "dirname", "id", "mktemp"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "bash"), append([]string{"scripts/setup.sh", "--dry-run"}, args...)...)
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("setup.sh --dry-run %v: %v\n%s", args, err, out)
	}
	install = map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && (f[0] == "install" || f[0] == "have"):
			name, _, _ := strings.Cut(f[2], "@")
			install[f[1]] = append(install[f[1]], name)
		case len(f) >= 3 && f[0] == "quiet" && f[1] == "service":
			quiet = append(quiet, f[2])
		default:
			t.Fatalf("setup.sh --dry-run %v: unexpected line %q", args, line)
		}
	}
	return install, quiet
}

// TestSetupRunInstallsOnlyWhatRunningNeeds: make run's set-up installs
// Chromium, Node, npm and Lighthouse and none of the tests' services or
// tools; make test's adds them, and keeps every service they bring
// stopped and disabled at boot.
func TestSetupRunInstallsOnlyWhatRunningNeeds(t *testing.T) {
	run, quiet := setupPlan(t)
	if got, want := run["apt"], []string{"chromium", "nodejs", "npm"}; !slices.Equal(got, want) {
		t.Errorf("make run installs Debian packages %v, want %v", got, want)
	}
	if got := run["npm"]; !slices.Equal(got, []string{"lighthouse"}) {
		t.Errorf("make run installs npm packages %v, want [lighthouse]", got)
	}
	if len(run["go"]) > 0 || len(quiet) > 0 {
		t.Errorf("make run builds %v and installs services %v, want none", run["go"], quiet)
	}

	test, quiet := setupPlan(t, "--test")
	for kind, names := range map[string][]string{
		"apt": {"chromium", "nodejs", "npm", "bind9", "redis-server", "gnutls-bin", "nftables"},
		"npm": {"lighthouse", "redocly"},
		"go":  {"versitygw"},
	} {
		for _, name := range names {
			if !slices.Contains(test[kind], name) {
				t.Errorf("make test does not install %s %s (it installs %v)", kind, name, test)
			}
		}
	}
	slices.Sort(quiet)
	if want := []string{"named.service", "nftables.service", "redis-server.service"}; !slices.Equal(quiet, want) {
		t.Errorf("make test keeps services %v stopped and disabled, want %v", quiet, want)
	}
}
