package pod

import (
	"bufio"
	"math"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
)

// ReadResources returns the host's live resource figures from /proc
// (cpu count, load averages, memory); on systems without /proc the
// figures it cannot read are zero.
func ReadResources() api.Resources {
	r := api.Resources{CPUCount: goruntime.NumCPU()}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(data))
		if len(f) >= 3 {
			r.CPULoad1, _ = strconv.ParseFloat(f[0], 64)
			r.CPULoad5, _ = strconv.ParseFloat(f[1], 64)
			r.CPULoad15, _ = strconv.ParseFloat(f[2], 64)
		}
	}
	mem := meminfo()
	gb := func(kb float64) float64 { return round(kb/1024/1024, 3) }
	total, avail := mem["MemTotal"], mem["MemAvailable"]
	r.MemTotalGB = gb(total)
	r.MemAvailableGB = gb(avail)
	r.MemFreeGB = gb(mem["MemFree"])
	r.MemActiveGB = gb(mem["Active"])
	r.MemInactiveGB = gb(mem["Inactive"])
	r.MemUsedGB = gb(total - avail)
	if total > 0 {
		r.MemPercent = round((total-avail)/total*100, 1)
	}
	return r
}

// meminfo reads /proc/meminfo as kB figures by field name.
func meminfo() map[string]float64 {
	out := map[string]float64{}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
			out[name] = v
		}
	}
	return out
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
