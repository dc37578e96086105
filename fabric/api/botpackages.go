package api

// Bot packages (SPEC 2.3a, 4.3): a tenant's packages of Starlark bots,
// one record a package name in BotPackagesBucket, its files as one
// .tar.gz in the object store under BotPackagesFolder.

const (
	// BotPackagesBucket holds a BotPackageRecord a package, keyed by
	// its name.
	BotPackagesBucket = "fabric_bot_packages"
	// BotPackagesFolder is the object-store folder of the packages'
	// archives (the data sweep keeps those a record names).
	BotPackagesFolder = "_bot_packages/"
)

// BotPackageRecord is a bot package of the catalog: the newest version
// added of its name.
type BotPackageRecord struct {
	// Name is the package's name (bots.yml's extension.default_name).
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Version is dotted numbers.
	Version     string `json:"version"`
	Description string `json:"description"`
	Publisher   string `json:"publisher"`
	// Bots are the bots' tags, @namespace:bot.
	Bots []string `json:"bots"`
	// Blob is where the package's .tar.gz is in the object store.
	Blob string `json:"blob"`
	Size int64  `json:"size"`
	// Dist is where the package's dist .tar.gz (bot-package build) is,
	// "" when it has none.
	Dist      string `json:"dist,omitempty"`
	SavedTime string `json:"saved_time"`
}

// BotSourcesBucket holds a BotSource a source, keyed by its name.
const BotSourcesBucket = "fabric_bot_sources"

// BotSource is a configured instance of a bot package's config_template:
// what a step names with source = 'NAME'. The values of the template's
// $secure keys are never stored here: each is a reference to a secret,
// {"$secret": NAME}.
type BotSource struct {
	Name string `json:"name"`
	// Package is the bot package's name.
	Package string `json:"package"`
	// Config holds the template's keys.
	Config    map[string]any `json:"config"`
	SavedTime string         `json:"saved_time"`
}
