package cluster

import "strconv"

// FindBinDir exposes findBinDir to the external tests.
func FindBinDir(explicit, root, want string) (string, error) {
	return findBinDir(explicit, root, want)
}

// Disown gives up c's folder as if another process had started its server.
func Disown(c *Cluster) { c.release() }

// OwnerLine is what owner.pid holds for process pid.
func OwnerLine(pid int) string { return strconv.Itoa(pid) + " " + startTime(pid) + "\n" }
