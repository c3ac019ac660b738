package domain

// Enum is implemented by the string types whose values the schema lists.
// Closed enums reject any other value; open ones (Open == true) accept
// other strings, with "_"-prefixed values reserved for extensions.
type Enum interface {
	EnumValues() (values []string, open bool)
}
