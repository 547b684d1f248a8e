//! What past runs cost, for `--dry-run`'s estimates ([`Store::past_costs`]).

use super::Store;
use crate::error::Result;
use crate::evidence::Arm;

impl Store {
    /// What usable runs on `model` have cost, for estimates: per case and arm
    /// of `item`, and over every item (total dollars and runs); and every
    /// usable run on any model, grouped ([`CostGroup`]).
    pub fn past_costs(&self, item: &str, model: &str) -> Result<PastCosts> {
        let fault = |e| self.fault("reading past costs", e);
        let mut out = PastCosts::default();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT case_name, arm, total(cost_usd), count(*) FROM runs \
                 WHERE item = ?1 AND model = ?2 AND usable = 1 GROUP BY case_name, arm",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([item, model]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            let arm: String = row.get(1).map_err(fault)?;
            out.cases.insert(
                (row.get(0).map_err(fault)?, self.arm(&arm)?),
                (
                    row.get(2).map_err(fault)?,
                    row.get::<_, i64>(3).map_err(fault)? as u64,
                ),
            );
        }
        out.model = self
            .conn
            .query_row(
                "SELECT total(cost_usd), count(*) FROM runs WHERE model = ?1 AND usable = 1",
                [model],
                |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)),
            )
            .map_err(fault)?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT CASE WHEN item = ?1 THEN case_name END, arm, model, judge_model, \
                 total(cost_usd - judge_cost_usd), total(judge_cost_usd), count(*) FROM runs \
                 WHERE usable = 1 GROUP BY 1, 2, 3, 4",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([item]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            let arm: String = row.get(1).map_err(fault)?;
            out.groups.push(CostGroup {
                case: row.get(0).map_err(fault)?,
                arm: self.arm(&arm)?,
                model: row.get(2).map_err(fault)?,
                judge_model: row.get(3).map_err(fault)?,
                agent_usd: row.get(4).map_err(fault)?,
                judge_usd: row.get(5).map_err(fault)?,
                runs: row.get::<_, i64>(6).map_err(fault)? as u64,
            });
        }
        Ok(out)
    }
}

/// Past costs on one model ([`Store::past_costs`]): dollars and runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PastCosts {
    /// Per case and arm of the item.
    pub cases: std::collections::BTreeMap<(String, Arm), (f64, u64)>,
    /// Over every item on the model.
    pub model: (f64, u64),
    /// Every usable run on any model, grouped, the agent's dollars apart
    /// from the judge's: what a first estimate on another model scales.
    pub groups: Vec<CostGroup>,
}

/// Usable runs of one arm on one model and judge model ([`PastCosts::groups`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CostGroup {
    /// The case, for the item asked about; `None` for every other item's runs.
    pub case: Option<String>,
    /// The arm.
    pub arm: Arm,
    /// The model as keyed.
    pub model: String,
    /// The judge model as keyed (`default`: the platform's).
    pub judge_model: String,
    /// Dollars of the agent (the run's cost less the judge's).
    pub agent_usd: f64,
    /// Dollars of the judge.
    pub judge_usd: f64,
    /// Runs.
    pub runs: u64,
}
