package script

// Lease are lease.lua's KEYS and ARGV: its header, and the comment under
// it, say what each is.
type Lease struct {
	Lease string `lua:"lease"`

	Token  string `lua:"token"`
	Op     string `lua:"op"`
	Millis int64  `lua:"ms"`
}

// Call is the run of lease.lua with these arguments.
func (l *Lease) Call() Call {
	return Call{Script: lease, Keys: []string{l.Lease}, Args: []any{l.Token, l.Op, l.Millis}}
}
