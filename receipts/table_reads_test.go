package receipts

// State is id's state; a message both decided on and held says Held.
func (t *Table) State(id string) State {
	if e, ok := t.live[id]; ok && e.state != Seen {
		return e.state
	}
	switch {
	case t.IsDone(id):
		return Done
	case t.IsSeen(id):
		return Seen
	}
	return Unseen
}

// IsHeld tells whether id is held (a delete under way included).
func (t *Table) IsHeld(id string) bool {
	e := t.live[id]
	return e.state == Held || e.state == Deleting
}
