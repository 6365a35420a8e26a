package cli

// FlagSetOf is flagSetOf for the tests outside the package.
var FlagSetOf = flagSetOf
