package classify

// fieldStat is what a baseline knows of one field path.
type fieldStat struct {
	path    string
	depth   int
	present int            // messages that have the path
	types   [nTypes]int    // messages that have it with each JSON type
	values  map[string]int // enum candidates → occurrences
	notEnum bool           // a value that is no enum member, or too many values
	last    int            // the message last counted, so each counts once
	mask    uint8          // types seen in that message
	pc      patternCounts  // its string values' patterns
}

// fieldProfile is the baseline's profile: each field path's types and, for
// enum-like fields, values. Bounded by maxProfilePaths × maxProfileValues.
type fieldProfile struct {
	messages int // payloads profiled (JSON objects)
	ids      map[string]int
	fields   []fieldStat
	w        walker
}

func newFieldProfile() *fieldProfile {
	p := &fieldProfile{ids: map[string]int{}}
	p.w.visit = p.visit
	return p
}

// add profiles one payload, a JSON object.
func (p *fieldProfile) add(payload []byte) {
	p.messages++
	p.w.walk(payload, 0)
}

func (p *fieldProfile) visit(path []byte, depth, typ int, raw []byte) {
	id, ok := p.ids[string(path)]
	if !ok {
		if len(p.fields) >= maxProfilePaths {
			return
		}
		id = len(p.fields)
		p.ids[string(path)] = id
		p.fields = append(p.fields, fieldStat{path: string(path), depth: depth})
	}
	f := &p.fields[id]
	if f.last != p.messages {
		f.last, f.mask = p.messages, 0
		f.present++
		f.pc.reset()
	}
	if typ == tString {
		f.pc.add(patternsOf(raw[1 : len(raw)-1]))
	}
	if f.mask&(1<<typ) == 0 {
		f.mask |= 1 << typ
		f.types[typ]++
	}
	if f.notEnum || typ == tNull {
		return
	}
	v, ok := enumText(raw, typ, isTopFingerprintKey(path, depth))
	if !ok {
		if typ != tObject && typ != tArray {
			f.notEnum = true
		}
		return
	}
	if f.values == nil {
		f.values = map[string]int{}
	}
	if _, seen := f.values[v]; !seen && len(f.values) >= maxProfileValues {
		f.notEnum, f.values = true, nil
		return
	}
	f.values[v]++
}

// enumLike tells a field whose values are few and repeat: a status, a
// currency, a kind — where a value no healthy message has is news.
func (f *fieldStat) enumLike() bool {
	n := len(f.values)
	return !f.notEnum && n >= 1 && n <= maxEnumValues && f.present >= minEnumSupport && f.present >= 3*n
}

// groupFields is a group's profile over the baseline's paths only: what can
// drift is what the baseline knows.
type groupFields struct {
	messages int
	stats    []groupStat // by the baseline's field id
}

// groupStat is one baseline path in a group.
type groupStat struct {
	present int32
	types   [nTypes]int32
	last    int32
	mask    uint8
	newMsgs int32            // messages with a value the baseline lacks
	newVals map[string]int32 // those values (maxGroupNewValues)
	pc      patternCounts    // its string values' patterns
}

// profiler feeds payloads into group profiles against a baseline profile.
type profiler struct {
	base *fieldProfile
	enum []bool // by field id
	cur  *groupFields
	w    walker
}

// newProfiler profiles against base; top compares the top-level schema
// fields' values too (fetched payloads).
func newProfiler(base *fieldProfile, top bool) *profiler {
	pr := &profiler{base: base, enum: make([]bool, len(base.fields))}
	for i := range base.fields {
		f := &base.fields[i]
		pr.enum[i] = f.enumLike() && (top || !isTopFingerprintKey([]byte(f.path), f.depth))
	}
	pr.w.visit = pr.visit
	return pr
}

// add profiles payload into g.
func (pr *profiler) add(g *groupFields, payload []byte) {
	if g.stats == nil {
		g.stats = make([]groupStat, len(pr.base.fields))
	}
	g.messages++
	pr.cur = g
	pr.w.walk(payload, 0)
}

func (pr *profiler) visit(path []byte, depth, typ int, raw []byte) {
	id, ok := pr.base.ids[string(path)]
	if !ok {
		return
	}
	g := pr.cur
	s := &g.stats[id]
	seq := int32(g.messages)
	if s.last != seq {
		s.last, s.mask = seq, 0
		s.present++
		s.pc.reset()
	}
	if typ == tString {
		s.pc.add(patternsOf(raw[1 : len(raw)-1]))
	}
	if s.mask&(1<<typ) == 0 {
		s.mask |= 1 << typ
		s.types[typ]++
	}
	if !pr.enum[id] || typ == tNull || typ == tObject || typ == tArray {
		return
	}
	var v []byte
	if typ == tString {
		v = raw[1 : len(raw)-1]
	} else {
		v = raw
	}
	if _, known := pr.base.fields[id].values[string(v)]; known {
		return
	}
	if s.mask&0x80 == 0 { // one count per message
		s.mask |= 0x80
		s.newMsgs++
	}
	if n, ok := s.newVals[string(v)]; ok || len(s.newVals) < maxGroupNewValues {
		if s.newVals == nil {
			s.newVals = map[string]int32{}
		}
		s.newVals[string(v)] = n + 1
	}
}

// topKey tells a top-level schema-naming field (version, type …), which
// the fingerprint already compares.
func (pr *profiler) topKey(id int) bool {
	f := &pr.base.fields[id]
	return isTopFingerprintKey([]byte(f.path), f.depth)
}
