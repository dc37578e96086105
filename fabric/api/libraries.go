package api

// Libraries (SPEC 2.12, 4.11): archives of .star modules kept in the
// tenant's object store under LibrariesFolder, staged per pod by install
// and loaded by the pod when it next starts.

// LibrariesFolder is the object-store folder of the library files: a file
// NAME-VERSION.tar.gz or NAME-VERSION-...whl is kept at
// LibrariesFolder + its file name. The files are their own records: the
// data sweep leaves the folder alone.
const LibrariesFolder = "_libraries/"

// EndpointLibraries is the pod endpoint (every pod answers it) that
// reports the pod's libraries or stages library files (a LibrariesRequest;
// the answer: a PodLibraries, or an Error).
const EndpointLibraries = "libraries"

// Library statuses of a pod's row (SPEC 3).
const (
	LibraryNotInstalled   = "NOT INSTALLED"
	LibraryStaged         = "STAGED"
	LibraryUpToDate       = "UP TO DATE"
	LibraryPatchAvailable = "PATCH AVAILABLE"
)

// LibraryFile is a library file of the object store.
type LibraryFile struct {
	// Package is the library's name (normalised: lower case, runs of
	// "-", "_" and "." as one "_").
	Package  string `json:"package"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// LibrariesRequest asks a pod about its libraries. Latest are the object
// store's newest file of each library; Install, when not empty, are the
// files the pod stages (op "install"). QLQuery, when set, is a CFXQL
// filter on the pod's info: a pod it does not match answers Skipped.
type LibrariesRequest struct {
	Op      string        `json:"op"`
	QLQuery string        `json:"ql_query,omitempty"`
	Latest  []LibraryFile `json:"latest"`
	Install []LibraryFile `json:"install,omitempty"`
}

// LibraryRow is a library as one pod has it (SPEC 2.12).
type LibraryRow struct {
	Package            string `json:"package"`
	Filename           string `json:"filename"`
	ObjectstoreVersion string `json:"objectstore_version"`
	InstalledVersion   string `json:"installed_version"`
	Status             string `json:"status"`
}

// LibraryInstallRow is what a pod did with one library file of an
// install: Status STAGED, UP TO DATE (nothing to do) or FAILED.
type LibraryInstallRow struct {
	PodID    string `json:"Pod ID"`
	Hostname string `json:"Hostname"`
	Filename string `json:"Filename"`
	Status   string `json:"Status"`
	Message  string `json:"Message"`
}

// PodLibraries is a pod's answer to a LibrariesRequest (SPEC 2.12): its
// rows (list) or what it staged (install).
type PodLibraries struct {
	PodID    string              `json:"pod_id"`
	Hostname string              `json:"hostname"`
	SiteName string              `json:"site_name"`
	Skipped  bool                `json:"skipped,omitempty"`
	Rows     []LibraryRow        `json:"rows,omitempty"`
	Install  []LibraryInstallRow `json:"install,omitempty"`
}

// LibraryTarget selects the pods of a library list or install: those of
// PodType with one of PodIDs, or at a site the regular expression Site
// matches (the whole name), and matching QLQuery (a CFXQL filter on the
// pod's info) when given.
type LibraryTarget struct {
	PodType string   `json:"pod_type"`
	PodIDs  []string `json:"pod_ids,omitempty"`
	Site    string   `json:"site,omitempty"`
	QLQuery string   `json:"ql_query,omitempty"`
}

// LibraryReport is the answer of a library list or install: the pods
// that answered (by pod id), how many answered and how many were asked.
type LibraryReport struct {
	Pods      []PodLibraries `json:"pods"`
	Responded int            `json:"responded"`
	Targeted  int            `json:"targeted"`
	// Missing are the pods asked that did not answer in time.
	Missing []string `json:"missing,omitempty"`
}

// SubjectLibraries asks the api-server to list or install libraries on
// pods (a LibrariesAsk; the answer: a LibraryReport, or an Error).
const SubjectLibraries = "fabric.api.libraries"

// LibrariesAsk is a library list (Op "list") or install (Op "install" of
// Libraries: names of libraries, file names, or "all") on the pods Target
// selects, waiting at most WaitSeconds for their answers.
type LibrariesAsk struct {
	Op          string        `json:"op"`
	Target      LibraryTarget `json:"target"`
	Libraries   []string      `json:"libraries,omitempty"`
	WaitSeconds float64       `json:"wait_seconds"`
}
