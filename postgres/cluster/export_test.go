package cluster

// FindBinDir exposes findBinDir to the external tests.
func FindBinDir(explicit, root, want string) (string, error) {
	return findBinDir(explicit, root, want)
}
