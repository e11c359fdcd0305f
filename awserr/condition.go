package awserr

// ConditionLost tells an S3 conditional write (If-Match, If-None-Match)
// whose condition failed: 412 PreconditionFailed, or 409
// ConditionalRequestConflict when another write to the key landed at the
// same moment. Either way the object is someone else's newer write: the
// writer reads it again, it never overwrites.
func ConditionLost(err error) bool {
	switch Code(err) {
	case "PreconditionFailed", "ConditionalRequestConflict":
		return true
	}
	return false
}
