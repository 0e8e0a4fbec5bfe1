// Reports as real xlsx workbooks (exceljs), one sheet, a header row from the record keys.
import ExcelJS from "exceljs";

export async function workbook(title: string, rows: Record<string, unknown>[]): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  book.creator = "paysys sandbox";
  const sheet = book.addWorksheet(title.replace(/[^A-Za-z0-9]/g, " ").slice(0, 31));
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  sheet.columns = keys.map((k) => ({ header: k, key: k, width: Math.max(10, k.length + 2) }));
  for (const r of rows) sheet.addRow(r);
  return new Uint8Array(await book.xlsx.writeBuffer());
}
