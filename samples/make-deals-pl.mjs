// Writes samples/deals-pl.csv as a Polish spreadsheet program saves "CSV (separated by
// semicolons)": windows-1250 bytes, `;` between fields, CRLF line ends, no BOM, a field quoted only
// when it holds `;`, `"` or a line break. The .csv is committed; run this to regenerate it:
//   node samples/make-deals-pl.mjs
import { writeFileSync } from 'node:fs';
import iconv from 'iconv-lite';

const ENCODING = 'windows-1250';

const header = ['Nr oferty', 'Nazwa', 'Klient', 'Wartość', 'Waluta', 'Status', 'Lejek', 'Etap', 'Produkty', 'Data zamknięcia', 'Źródło'];

// Values are written with a `.` decimal point (the export's setting); the bad rows are described
// in mappings/deals-pl.yaml and samples/README.md.
const rows = [
  ['PL-2026-001', 'Zestaw biwakowy dla rodziny Kowalskich', 'C-10001', '1249.50', 'PLN', 'otwarta', '1', '1', 'TNT-4P-BLU, SB-SYN-L', '30.06.2026', 'polecenie'],
  ['PL-2026-002', 'Śpiwory puchowe na wyprawę zimową w Bieszczady', 'C-10006', '3798.00', 'PLN', 'wygrana', '1', '4', 'SB-DOWN-M', '15.01.2026', 'targi'],
  ['PL-2026-003', 'Namioty; śpiwory – obóz harcerski w Łebie', 'C-10010', '7420.80', 'PLN', 'otwarta', '2', '6', 'TNT-2P-GRN, SB-SYN-L, PAD-AIR-R', '31.07.2026', 'strona www'],
  ['PL-2026-004', 'Wyjazd integracyjny – październik w Zakopanem', 'C-10007', '5310.25', 'PLN', 'otwarta', '1', '3', 'BP-55-GRY, SKU/2024/RED', '25.09.2026', 'kontakt bezpośredni'],
  ['PL-2026-005', 'Wyposażenie stoiska na targach w Gdańsku', 'C-10011', '2150.00', 'PLN', 'przegrana', '1', '4', 'LMP-HEAD-400', '', 'targi'],
  ['PL-2026-006', 'Żółte kurtki dla przewodników górskich', 'C-10011', '4515.00', 'PLN', 'otwarta', '2', '5', 'JKT-RAIN-M', '14.08.2026', 'strona www'],
  // Typed by hand with the Polish number format: a space as thousands separator, a decimal comma.
  ['PL-2026-007', 'Źródełko – sprzęt kuchenny dla schroniska', 'C-10007', '1 249,50', 'PLN', 'otwarta', '1', '2', 'STV-GAS-01, POT-TI-750', '30.04.2026', 'polecenie'],
  // A placeholder row the salesperson never filled in: no deal name.
  ['PL-2026-008', '', 'C-10001', '640.00', 'PLN', 'otwarta', '1', '1', 'STV-GAS-01', '', 'strona www'],
  // "wygrany" (masculine) instead of the list's "wygrana".
  ['PL-2026-009', 'Ćwiczenia terenowe – plecaki dla szkoły', 'C-10006', '980.40', 'PLN', 'wygrany', '1', '4', 'SKU/2024/RED', '12.05.2026', 'kontakt bezpośredni'],
];

const quote = (field) => (/[;"\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
const text = [header, ...rows].map((fields) => fields.map(quote).join(';')).join('\r\n') + '\r\n';

const bytes = iconv.encode(text, ENCODING);
// iconv-lite writes `?` for a character the code page lacks: refuse rather than commit a lossy file.
if (iconv.decode(bytes, ENCODING) !== text) throw new Error(`a character of the sample is not in ${ENCODING}`);
const out = new URL('./deals-pl.csv', import.meta.url);
writeFileSync(out, bytes);
console.log(`wrote ${out.pathname}: ${rows.length} rows, ${bytes.length} bytes, ${ENCODING}, CRLF`);
