const XLSX = require('xlsx');
const rows = [["id", "name", "ratio"]];
for (let i = 0; i < 600; i++) rows.push([i, (i % 2 ? "héllo wörld ✓ " : "plain ") + i + "x".repeat(i % 7 == 0 ? 40 : 3), i / 8]);
rows.push([600, "é".repeat(200) + "end", 0.5]);
const ws = XLSX.utils.aoa_to_sheet(rows);
const wb = XLSX.utils.book_new();
XLSX.utils.book_append_sheet(wb, ws, "many");
XLSX.writeFile(wb, "many.xls", {bookType: "biff8"});
