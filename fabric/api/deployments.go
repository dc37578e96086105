package api

import "time"

// Deployments and schedules (SPEC 2.8, 4.7, 4.13): the leading
// scheduler's controller keeps each enabled deployment's service
// pipelines running, runs scheduled pipelines and standalone schedules on
// their cron, and starts action pipelines on demand.
const (
	// ControllerBucket keeps the controller's state: per deployment, the
	// jobs of each service and their restarts; per scheduled entry and
	// schedule, its last runs. A new leader takes over from it.
	ControllerBucket = "fabric_controller"
	// EndpointDeploymentAction starts an action pipeline of a deployment
	// on the leading scheduler (an ActionRequest; the answer is a
	// StartResponse). It is a per-pod endpoint: the client asks the pod
	// that holds the scheduler lease.
	EndpointDeploymentAction = "deployment-action"
	// DeploymentStatePrefix and ScheduleStatePrefix begin the keys of
	// the controller's records of a deployment and of a schedule (then
	// store.Key of its id or name).
	DeploymentStatePrefix = "d."
	ScheduleStatePrefix   = "s."
	// DefaultControllerPeriod is how often the controller looks at the
	// deployments and schedules.
	DefaultControllerPeriod = 5 * time.Second
)

// Kinds of jobs a controller starts (JobOwner.Kind).
const (
	OwnerService   = "service"
	OwnerScheduled = "scheduled"
	OwnerAction    = "action"
	OwnerSchedule  = "schedule"
)

// JobOwner says which deployment entry or schedule a job was started
// for; jobs started by hand have none.
type JobOwner struct {
	// Kind is OwnerService, OwnerScheduled, OwnerAction or OwnerSchedule.
	Kind string `json:"kind"`
	// Deployment is the deployment's id, DeploymentName its name, Label
	// the entry's label.
	Deployment     string `json:"deployment_id,omitempty"`
	DeploymentName string `json:"deployment_name,omitempty"`
	Label          string `json:"label,omitempty"`
	// Schedule is the schedule's name (OwnerSchedule).
	Schedule string `json:"schedule,omitempty"`
	// Restarts is how many times this service instance was re-created.
	Restarts int `json:"restarts,omitempty"`
}

// Activity is an entry of the deployment activity feed (SPEC 6), written
// to StreamDeploymentUpdates.
type Activity struct {
	Timestamp string `json:"timestamp"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	// Deployment is the deployment's id, or Schedule the schedule's
	// name, that the entry is about.
	Deployment string `json:"deployment_id,omitempty"`
	Schedule   string `json:"schedule,omitempty"`
	// JobID is the job it is about, if any.
	JobID string `json:"jobid,omitempty"`
}

// Activity severities.
const (
	SeverityInfo    = "INFO"
	SeverityWarning = "WARNING"
	SeverityError   = "ERROR"
)

// ActionRequest asks the controller to start an action pipeline of a
// deployment.
type ActionRequest struct {
	Deployment string `json:"deployment_id"`
	// Name is the action entry's label or its pipeline's name.
	Name string `json:"name"`
}

// CronRun is a run of a scheduled pipeline or a schedule: when it came
// due, the job it started, or why it could not start one.
type CronRun struct {
	Time  time.Time `json:"time"`
	JobID string    `json:"jobid,omitempty"`
	Error string    `json:"error,omitempty"`
}

// CronState is what the controller keeps of a cron: when it last looked,
// and its last runs, the oldest first.
type CronState struct {
	Last    time.Time `json:"last"`
	Runs    []CronRun `json:"runs,omitempty"`
	Problem string    `json:"problem,omitempty"`
	// Off is set while the cron does not run (a paused schedule).
	Off bool `json:"off,omitempty"`
}
