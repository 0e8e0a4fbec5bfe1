-- Each claim of a webhook delivery carries its delivery's token, so a delivery gives back only its
-- own claim: once its claim ran out, another delivery may hold the event. Claims taken before this
-- migration have none, and are left to run out.
ALTER TABLE {{schema}}.{{callbacks}} ADD COLUMN claim text;
