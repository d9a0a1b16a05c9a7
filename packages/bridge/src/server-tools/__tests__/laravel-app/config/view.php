<?php
return ['paths' => [base_path('views')], 'compiled' => storage_path('framework/views')];
