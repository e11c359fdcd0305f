package cmd

import ()
