//! The plain-text table the `table(headers, rows)` primitive renders.

/// A left-aligned text table: a header line, a rule, one line per row.
/// Columns are as wide as their widest cell; trailing spaces are trimmed.
pub fn render(headers: &[String], rows: &[Vec<String>]) -> String {
    let columns = rows
        .iter()
        .map(Vec::len)
        .chain([headers.len()])
        .max()
        .unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows.iter().chain([&headers.to_vec()]) {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let cells: Vec<String> = (0..columns)
            .map(|i| {
                let cell = row.get(i).map_or("", String::as_str);
                // Padded by hand: a width past u16::MAX would panic in `format!`.
                let pad = widths[i].saturating_sub(cell.chars().count());
                format!("{cell}{}", " ".repeat(pad))
            })
            .collect();
        cells.join("  ").trim_end().to_string()
    };
    let mut out = vec![line(headers)];
    out.push(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    out.extend(rows.iter().map(|r| line(r)));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let h = vec!["item".to_string(), "verdict".to_string()];
        let rows = vec![
            vec!["commit".to_string(), "improved".to_string()],
            vec!["x".to_string(), "—".to_string()],
        ];
        assert_eq!(
            render(&h, &rows),
            "item    verdict\n------  --------\ncommit  improved\nx       —"
        );
    }
}
