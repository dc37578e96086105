// Code below names, for the shell's builtins, what they use of the
// fabric's infrastructure packages: the client is their one door into the
// fabric (no package under builtins imports fabric/infra; a test in
// cmd/client keeps it so). Each name is the infrastructure's own.

package client

import (
	clientlocal "github.com/fabricops/fabric/fabric/client/local"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/backup"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/dashboards"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/subscription"
	"github.com/fabricops/fabric/fabric/infra/synthetics"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/probes"
)

type (
	// ArtifactKind is artifact.Kind.
	ArtifactKind = artifact.Kind
	// ArtifactRecord is artifact.Record.
	ArtifactRecord = artifact.Record
	// ArtifactRepo is artifact.Repo.
	ArtifactRepo = artifact.Repo
)

var (
	// DashboardKind is artifact.Dashboard.
	DashboardKind = artifact.Dashboard
	// ArtifactFromJSON is artifact.FromJSON.
	ArtifactFromJSON = artifact.FromJSON
	// ArtifactKinds is artifact.Kinds.
	ArtifactKinds = artifact.Kinds
	// ScheduleKind is artifact.Schedule.
	ScheduleKind = artifact.Schedule
	// SubscriptionKind is artifact.Subscription.
	SubscriptionKind = artifact.Subscription
	// SubscriptionOfDocument is subscription.OfDocument.
	SubscriptionOfDocument = subscription.OfDocument
	// SubscriptionFields is subscription.Fields.
	SubscriptionFields = subscription.Fields
)

type (
	// BackupSource is backup.Source.
	BackupSource = backup.Source
	// BackupSetupOptions is backup.SetupOptions.
	BackupSetupOptions = backup.SetupOptions
)

var (
	// BackupCheckDestination is backup.CheckDestination.
	BackupCheckDestination = backup.CheckDestination
	// BackupWrite is backup.Write.
	BackupWrite = backup.Write
	// BackupSetup is backup.Setup.
	BackupSetup = backup.Setup
	// BackupReadSettings is backup.ReadSettings.
	BackupReadSettings = backup.ReadSettings
	// BackupKinds is backup.Kinds.
	BackupKinds = backup.Kinds
)

type (
	// Config is bus.Config.
	Config = bus.Config
	// GraphDBConfig is bus.GraphDBConfig.
	GraphDBConfig = bus.GraphDBConfig
	// Project is bus.Project.
	Project = bus.Project
)

var (
	// AddProject is bus.AddProject.
	AddProject = bus.AddProject
	// ConfigPath is bus.ConfigPath.
	ConfigPath = bus.ConfigPath
	// CurrentProject is bus.CurrentProject.
	CurrentProject = bus.CurrentProject
	// DeleteProject is bus.DeleteProject.
	DeleteProject = bus.DeleteProject
	// ErrNoConfig is bus.ErrNoConfig.
	ErrNoConfig = bus.ErrNoConfig
	// ErrUnreachable is bus.ErrUnreachable.
	ErrUnreachable = bus.ErrUnreachable
	// LoadConfig is bus.LoadConfig.
	LoadConfig = bus.LoadConfig
	// LoadProject is bus.LoadProject.
	LoadProject = bus.LoadProject
	// Projects is bus.Projects.
	Projects = bus.Projects
	// TenantConfigPath is bus.TenantConfigPath.
	TenantConfigPath = bus.TenantConfigPath
	// UseProject is bus.UseProject.
	UseProject = bus.UseProject
	// ValidTenantName is bus.ValidTenantName.
	ValidTenantName = bus.ValidTenantName
)

type (
	// LocalState is local.State.
	LocalState = local.State
	// LocalUpOptions is the client's local.UpOptions.
	LocalUpOptions = clientlocal.UpOptions
)

var (
	// LocalBuildID is local.BuildID.
	LocalBuildID = local.BuildID
	// LocalDown is the client's local.Down.
	LocalDown = clientlocal.Down
	// LocalFindDaemon is the client's local.FindDaemon.
	LocalFindDaemon = clientlocal.FindDaemon
	// LocalLogs is the client's local.Logs.
	LocalLogs = clientlocal.Logs
	// LocalStatus is local.Status.
	LocalStatus = local.Status
	// LocalUp is the client's local.Up.
	LocalUp = clientlocal.Up
	// LocalUpgradeToken is local.UpgradeToken.
	LocalUpgradeToken = local.UpgradeToken
)

type (
	// Archive is logarchive.Archive.
	Archive = logarchive.Archive
)

const (
	// ArchiveBatchSize is logarchive.DefaultBatchSize.
	ArchiveBatchSize = logarchive.DefaultBatchSize
)

var (
	// AddArchiveRepo is logarchive.AddRepo.
	AddArchiveRepo = logarchive.AddRepo
	// NewArchivePacer is logarchive.NewPacer.
	NewArchivePacer = logarchive.NewPacer
	// OpenArchive is logarchive.Open.
	OpenArchive = logarchive.Open
	// ArchiveRecordTime is logarchive.RecordTime.
	ArchiveRecordTime = logarchive.RecordTime
	// ArchiveRepos is logarchive.Repos.
	ArchiveRepos = logarchive.Repos
)

type (
	// SecretStore is secret.Store.
	SecretStore = secret.Store
)

var (
	// ErrNotFound is store.ErrNotFound.
	ErrNotFound = store.ErrNotFound
	// RecordKey is store.Key.
	RecordKey = store.Key
)

type (
	// StreamConfig is streams.Config.
	StreamConfig = streams.Config
	// StreamMessage is streams.Message.
	StreamMessage = streams.Message
	// StreamReadOptions is streams.ReadOptions.
	StreamReadOptions = streams.ReadOptions
)

var (
	// StreamAdd is streams.Add.
	StreamAdd = streams.Add
	// StreamCheckName is streams.CheckName.
	StreamCheckName = streams.CheckName
	// StreamDelete is streams.Delete.
	StreamDelete = streams.Delete
	// StreamGet is streams.Get.
	StreamGet = streams.Get
	// StreamList is streams.List.
	StreamList = streams.List
	// StreamNewWriter is streams.NewWriter.
	StreamNewWriter = streams.NewWriter
	// StreamRead is streams.Read.
	StreamRead = streams.Read
)

var (
	// DraftNames is tenant.DraftNames.
	DraftNames = tenant.DraftNames
)

var (
	// BackupDiff is backup.Diff.
	BackupDiff = backup.Diff
	// BusConnect is bus.Connect.
	BusConnect = bus.Connect
)

const (
	// BackupDiffer is backup.Differ.
	BackupDiffer = backup.Differ
	// LocalProject is bus.LocalProject.
	LocalProject = bus.LocalProject
	// RemoteProject is bus.RemoteProject.
	RemoteProject = bus.RemoteProject
)

type (
	// Dashboards is dashboards.Dashboards.
	Dashboards = dashboards.Dashboards
	// StreamLineSplitter is streams.LineSplitter.
	StreamLineSplitter = streams.LineSplitter
)

// ScheduleEnabled is blueprint.ScheduleEnabled.
const ScheduleEnabled = blueprint.ScheduleEnabled

var (
	// ScheduleStatuses is blueprint.ScheduleStatuses.
	ScheduleStatuses = blueprint.ScheduleStatuses
	// LoadPipeline is tenant.LoadPipeline.
	LoadPipeline = tenant.LoadPipeline
)

type (
	// SyntheticsResult is probes.Result.
	SyntheticsResult = probes.Result
)

var (
	// OpenSyntheticsStatus is synthetics.OpenStatus.
	OpenSyntheticsStatus = synthetics.OpenStatus
	// SyntheticsKind is artifact.Synthetics.
	SyntheticsKind = artifact.Synthetics
)
