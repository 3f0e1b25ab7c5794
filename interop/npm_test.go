package interop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// installModules runs `npm ci` once per package-lock.json into
// os.UserCacheDir()/a2atop-jspeer-<hash> and returns its node_modules path.
// A finished install is marked by a stamp file; a concurrent or broken one
// is redone in a fresh temporary folder and renamed into place.
func installModules(npm, src string) (string, error) {
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", fmt.Errorf("read jspeer/package-lock.json: %w", err)
	}
	sum := sha256.Sum256(lock)
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "a2atop-jspeer-"+hex.EncodeToString(sum[:])[:16])
	stamp := filepath.Join(dir, ".installed")
	if _, err := os.Stat(stamp); err == nil {
		return filepath.Join(dir, "node_modules"), nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("create cache folder: %w", err)
	}
	tmp, err := os.MkdirTemp(base, "a2atop-jspeer-tmp-")
	if err != nil {
		return "", fmt.Errorf("create install folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(tmp, f)); err != nil {
			return "", err
		}
	}
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci in %s failed (is the npm registry reachable?): %w\n%s", tmp, err, tail(log.String(), 2000))
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process won the race, or a broken install without a stamp
		// is in the way: use the winner, or replace the broken one.
		if _, serr := os.Stat(stamp); serr == nil {
			return filepath.Join(dir, "node_modules"), nil
		}
		if rerr := os.RemoveAll(dir); rerr != nil {
			return "", fmt.Errorf("replace broken install %s: %w", dir, rerr)
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", fmt.Errorf("move install into %s: %w", dir, err)
		}
	}
	return filepath.Join(dir, "node_modules"), nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		return fmt.Errorf("copy to %s: %w", to, err)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
