const XLSX = require('xlsx');
const rows = [
  ["host", "cpu", "up", "seen", "note"],
  ["r1", 91.5, true, new Date(Date.UTC(2026, 10, 25, 10, 0, 0)), "edge"],
  ["r2", 12, false, new Date(Date.UTC(2026, 10, 25, 10, 30, 0)), null],
  ["sw 3", -3.25, true, new Date(Date.UTC(2026, 10, 26, 0, 0, 0)), "core, \"east\""],
];
const ws = XLSX.utils.aoa_to_sheet(rows, {cellDates: true});
const wb = XLSX.utils.book_new();
XLSX.utils.book_append_sheet(wb, ws, "hosts");
XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([["other"],[1]]), "second");
XLSX.writeFile(wb, "hosts.xls", {bookType: "biff8"});
console.log("ok");
