"""The phone gateway: `heartcompass serve` on Telegram and Feishu/Lark."""
