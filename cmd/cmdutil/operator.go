package cmdutil

import (
	"os"
	"os/user"
)

// Operator names who ran the incident, from the login environment (USER,
// LOGNAME, else the local account): never from AWS credentials or the
// caller identity.
func Operator() string {
	for _, k := range []string{"USER", "LOGNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
