<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolmark · Inertia + Laravel</title>
<link rel="icon" href="data:,">
<?php foreach ($assets['styles'] as $href): ?><link rel="stylesheet" href="<?= e($href) ?>"><?php endforeach ?>
<?php foreach ($assets['scripts'] as $src): ?><script type="module" src="<?= e($src) ?>"></script><?php endforeach ?>
</head>
<body>
<div id="app"></div>
<script data-page="app" type="application/json"><?= json_encode($page, JSON_HEX_TAG | JSON_HEX_AMP | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR) ?></script>
</body>
</html>
